/** The offline report: Markdown notes to HTML (escaped, never markup of their own), one self-contained file. */
import { describe, expect, test } from 'vitest';
import { markdownToHtml, reportHtml } from '../../../electron/domain/report-html';
import type { RunListing } from '../../../electron/domain/runs';

describe('report html', () => {
  test('headings under the title, lists, emphasis, code; HTML in the notes is text', () => {
    expect(markdownToHtml('# Findings\n\nA **b** *c* `d`\n- one\n- two\n1. first')).toBe(
      '<h2>Findings</h2>\n<p>A <strong>b</strong> <em>c</em> <code>d</code></p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<ol>\n<li>first</li>\n</ol>',
    );
    expect(markdownToHtml('<script>alert(1)</script> [x](https://e.org)')).toBe(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt; x (https://e.org)</p>',
    );
  });
  test('a run title with markup stays text; nothing is fetched', () => {
    const run = {
      id: 'r1',
      title: '<img src=x>',
      policy: 'oracle',
      suite: '/s',
      createdAt: '2026-12-01T00:00:00Z',
      done: 4,
      total: 4,
      resolvedRate: 0.5,
      meanReward: 2,
      fields: { 'config.seed': 3 },
    } as unknown as RunListing;
    const html = reportHtml({ title: 'T', notes: '', runs: [run], columns: ['config.seed'], generatedAt: 'now' });
    expect(html).toContain('&lt;img src=x&gt;');
    expect(html).not.toMatch(/<script|<link|<img/i);
    expect(html).toContain('<td class="num">3</td>');
  });
});
