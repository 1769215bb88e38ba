/** A block of text that may scroll (an output, an input, a diff): a Tab stop, so a keyboard reaches and scrolls it. */
import type { JSX } from 'preact';

export function ScrollPre(props: JSX.HTMLAttributes<HTMLPreElement>) {
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls is reached and scrolled with the keyboard too
  return <pre {...props} tabIndex={0} />;
}
