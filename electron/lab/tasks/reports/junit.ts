/**
 * JUnit XML (what `pytest --junitxml` writes): every `<testcase>` in any `<testsuite>`, with `<failure>`
 * -> failed, `<error>` -> error, `<skipped>` -> not passed. DOCTYPE/ENTITY declarations are refused (no
 * entity expansion games).
 */
import { XMLParser } from 'fast-xml-parser';
import type { AssertionResult } from '../../../domain/tasks';
import { clip, type ParsedReport } from './ctrf';

interface XmlNode {
  [key: string]: unknown;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  processEntities: true,
  // pytest escapes newlines in attributes as &#10;: decode numeric and named character references.
  htmlEntities: true,
  isArray: (name) =>
    name === 'testsuite' || name === 'testcase' || name === 'failure' || name === 'error' || name === 'skipped',
});

function text(node: unknown): string {
  if (node === undefined || node === null) return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  const n = node as XmlNode;
  return [n['@message'], n['#text']]
    .filter((v) => v !== undefined && v !== '')
    .map(String)
    .join('\n');
}

function collectCases(node: XmlNode, out: XmlNode[]): void {
  for (const suite of (node.testsuite as XmlNode[] | undefined) ?? []) {
    out.push(...((suite.testcase as XmlNode[] | undefined) ?? []));
    collectCases(suite, out);
  }
}

export function parseJunit(xml: string): ParsedReport {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml))
    return { ok: false, reason: 'junit.xml declares a DOCTYPE or entities; refused' };
  let doc: XmlNode;
  try {
    doc = parser.parse(xml, true) as XmlNode;
  } catch (error) {
    return { ok: false, reason: `junit.xml is not valid XML: ${(error as Error).message.split('\n')[0]}` };
  }
  const root = (doc.testsuites as XmlNode | undefined) ?? doc;
  if (!root || (!('testsuite' in root) && !('testsuites' in doc)))
    return { ok: false, reason: 'junit.xml has no <testsuites> or <testsuite>' };
  const cases: XmlNode[] = [];
  collectCases(root as XmlNode, cases);

  const names = cases.map((c) => String(c['@name'] ?? ''));
  const duplicated = new Set(names.filter((n, i) => names.indexOf(n) !== i));
  const assertions = cases.map((c, i): AssertionResult => {
    const base = names[i] || '(unnamed)';
    const classname = String(c['@classname'] ?? '');
    const name = duplicated.has(base) && classname ? `${classname}::${base}` : base;
    const failure = (c.failure as unknown[] | undefined)?.[0];
    const error = (c.error as unknown[] | undefined)?.[0];
    const skipped = (c.skipped as unknown[] | undefined)?.[0];
    if (error !== undefined) return { name, status: 'error', message: clip(text(error) || 'error') };
    if (failure !== undefined) return { name, status: 'failed', message: clip(text(failure) || 'failed') };
    if (skipped !== undefined)
      return {
        name,
        status: 'failed',
        message: clip(`skipped (not passed)${text(skipped) ? `: ${text(skipped)}` : ''}`),
      };
    return { name, status: 'passed', message: '' };
  });
  return { ok: true, assertions };
}
