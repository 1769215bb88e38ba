/**
 * Text from a tool input as it will run: characters that reorder or hide text (bidi controls,
 * zero-width and other invisible ones) drawn as marked ⟨U+XXXX⟩ escapes. One rule for the page
 * and the gateway: src/security/reveal.ts.
 */
import { type Revealed, revealInvisible } from '../../../src/security/reveal.js';
import './Revealed.css';

export { revealInvisible, revealNote } from '../../../src/security/reveal.js';

const ESCAPE = /(⟨U\+[0-9A-F]{4,6}⟩)/;

/** The revealed text with each escape marked, so it stands out from what was typed as such. */
export function RevealedText({ revealed }: { revealed: Revealed }) {
  if (!revealed.changed) return <>{revealed.text}</>;
  return (
    <>
      {revealed.text.split(ESCAPE).map((part, i) =>
        i % 2 ? (
          <mark class="hidden-char" data-testid="hidden-char" key={i}>
            {part}
          </mark>
        ) : (
          part
        ),
      )}
    </>
  );
}

/** A one-line text (a summary, a description) revealed and marked. */
export function Reveal({ text }: { text: string }) {
  return <RevealedText revealed={revealInvisible(text)} />;
}
