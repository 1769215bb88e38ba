/**
 * The ⋯ menu's "Open in a terminal": the command that opens this conversation's session in a terminal on the
 * machine its agent runs on (`rudder attach <id>`), to copy: the one Rudder runs on, or the node's. Its note says
 * what follows for Claude Code and for Codex both: the page is not told which agent the gateway runs.
 */
import { useRef, useState } from 'preact/hooks';
import { toast } from '../app-store.js';
import { copyText } from '../render.js';

/** Copies as the code blocks' Copy does; when the browser allows no copy at all, selects the text to copy by hand. */
async function copy(text: string, code: HTMLElement | null): Promise<boolean> {
  const ok = await copyText(text);
  if (!ok && code) window.getSelection()?.selectAllChildren(code);
  return ok;
}

export function TerminalCommand({ id, node }: { id: string; node: string | undefined }) {
  const [copied, setCopied] = useState(false);
  const code = useRef<HTMLElement>(null);
  const command = `rudder attach ${id}`;
  return (
    <div class="submenu terminal-command">
      <code data-testid="terminal-command" ref={code}>
        {command}
      </code>
      <button
        type="button"
        role="menuitem"
        data-testid="copy-terminal-command"
        onClick={() =>
          void copy(command, code.current).then((ok) => {
            setCopied(ok);
            if (!ok) toast('Selected: copy it with your keyboard or the browser menu.');
          })
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
      <p class="menu-note" data-testid="terminal-where">
        {node ? <OnNode node={node} /> : 'Run it in a terminal on the machine Rudder runs on.'} Claude Code: after you
        detach (<kbd class="keys">Ctrl-b d</kbd>), this conversation drives the same session again. Codex: the messages
        sent here wait until you hand the thread back there.
      </p>
    </div>
  );
}

/** Where a node's conversation opens: a terminal on that machine, the CLI told where this Rudder is. */
function OnNode({ node }: { node: string }) {
  return (
    <>
      Run it in a terminal on node {node}'s machine, with <code>RUDDER_URL</code> and <code>RUDDER_TOKEN</code> naming
      this Rudder.
    </>
  );
}
