/**
 * Markdown from task authors (instructions), with GitHub's tables and task lists, in the page's own
 * typography. Raw HTML in the source is not rendered (react-markdown escapes it unless told otherwise, and
 * `skipHtml` drops it): a task is data, never markup that runs in the app.
 */
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

export function Markdown({ text, testId }: { text: string; testId?: string }) {
  return (
    <div className="markdown" data-testid={testId}>
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        components={{
          // Links from a task open outside the app, never in place of it.
          a: ({ href, children }) => (
            <a href={href} target="_blank" rel="noopener noreferrer">
              {children}
            </a>
          ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
