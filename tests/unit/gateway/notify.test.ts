/**
 * The notifier's parts on their own: a button's token does one thing for one device until it
 * expires, and no other gateway's key (or a changed byte) makes one; a page's presence is a lease
 * that ends by itself; a permission notification offers Approve only for an input it shows whole.
 */
import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../../src/agents/session.js';
import { ActionTokens } from '../../../src/gateway/notify/action-tokens.js';
import { NOTIFY_INPUT_LIMIT, permissionNotice, turnDoneNotice } from '../../../src/gateway/notify/compose.js';
import { Presence } from '../../../src/gateway/notify/presence.js';
import { waitUntil } from '../../support/claude-rig.js';

const claim = {
  do: 'answer' as const,
  sub: 'device-1',
  conversationId: 'web:c',
  requestId: 'r1',
  optionId: 'allow',
  exp: Date.now() + 60_000,
};

describe('action tokens', () => {
  it('verify what this gateway signed, until it expires; never a changed token or another key', () => {
    const tokens = new ActionTokens();
    const t = tokens.sign(claim);
    expect(tokens.verify(t)).toEqual(claim);
    expect(tokens.verify(t, claim.exp + 1)).toBeUndefined();
    expect(new ActionTokens().verify(t)).toBeUndefined();
    const [body, mac] = t.split('.') as [string, string];
    const other = Buffer.from(JSON.stringify({ ...claim, optionId: 'option-2' })).toString('base64url');
    expect(tokens.verify(`${other}.${mac}`)).toBeUndefined();
    expect(tokens.verify(`${body}.${mac}x`)).toBeUndefined();
    expect(tokens.verify(`${body}.${mac}.x`)).toBeUndefined();
    expect(tokens.verify('x'.repeat(5000))).toBeUndefined();
  });
});

describe('presence', () => {
  it('counts a page until it looks away or its lease runs out, and says so once nobody looks', async () => {
    const p = new Presence(300);
    const away: string[] = [];
    p.onAway((c) => away.push(c));
    p.report('page-a', 'web:x');
    p.report('page-b', 'web:x');
    p.report('page-a', null);
    expect([p.watching('web:x'), away]).toEqual([true, []]);
    p.report('page-b', 'web:y');
    expect([p.watching('web:x'), p.watching('web:y'), away]).toEqual([false, true, ['web:x']]);
    // page-b vanishes without a word: its lease ends.
    await waitUntil(() => !p.watching('web:y'), 5000);
    expect(away).toEqual(['web:x', 'web:y']);
    p.stop();
  });
});

const request = (input: Record<string, unknown>, options = CLAUDE): PermissionRequest => ({
  requestId: 'r',
  toolName: 'Bash',
  input,
  options,
});
const CLAUDE = [
  { id: 'allow', label: 'Allow' },
  { id: 'deny', label: 'Deny' },
];

describe('permission notification', () => {
  it('offers Approve for an input shown whole, not one character past the limit', () => {
    const fits = 'x'.repeat(NOTIFY_INPUT_LIMIT);
    const n = permissionNotice('Build', request({ command: fits }), false);
    expect([n.approve?.id, n.deny?.id, n.body]).toEqual(['allow', 'deny', fits]);
    expect(n.title).toBe('Build · Bash waits for you');
    const over = permissionNotice('Build', request({ command: `${fits}y` }), false);
    expect([over.approve, over.deny?.id]).toEqual([undefined, 'deny']);
    expect(over.body).toMatch(/^x+…\n\(201 characters: open Rudder to read it all and approve\.\)$/);
  });

  it('cuts a long conversation name in the title, never what happened; the title stays within 80 characters', () => {
    const long = `run ${'/tmp/a-long-path/'.repeat(8)}`;
    const n = permissionNotice(long, request({ command: 'ls' }), false);
    expect(n.title).toMatch(/^run \/tmp\/a-long-path\/.*… · Bash waits for you$/);
    expect(n.title).toHaveLength(80);
    expect(turnDoneNotice(long, 4000, 'ok').title).toMatch(/… · done in 4 s$/);
    expect(turnDoneNotice('Build', 4000, 'ok').title).toBe('Build · done in 4 s');
  });

  it('withholds Approve for an input cut on its way here or hiding characters, and shows them', () => {
    expect(permissionNotice('c', request({ command: 'ls' }), true).approve).toBeUndefined();
    const hidden = permissionNotice('c', request({ command: 'ls #\u202Ehidden' }), false);
    expect(hidden.approve).toBeUndefined();
    expect(hidden.body).toContain('⟨U+202E⟩');
  });

  it('picks the options by what they do: a plain approval (not one that changes later prompts), a refusal', () => {
    const tui = [
      { id: 'allow', label: 'Yes' },
      { id: 'option-2', label: "Yes, and don't ask again", effect: 'later Bash commands run without asking' },
      { id: 'deny', label: 'No' },
    ];
    const n = permissionNotice('c', request({ command: 'ls', description: 'List' }, tui), false);
    expect([n.approve?.id, n.deny?.id]).toEqual(['allow', 'deny']);
    expect(n.body).toBe('ls\ndescription: List');
    const codex = [
      { id: 'accept-session', label: 'Accept for the session', kind: 'allow' as const, effect: 'for the session' },
      { id: 'accept', label: 'Accept', kind: 'allow' as const },
      { id: 'decline', label: 'Decline', kind: 'deny' as const },
    ];
    const c = permissionNotice('c', request({ command: 'ls' }, codex), false);
    expect([c.approve?.id, c.deny?.id]).toEqual(['accept', 'decline']);
  });
});
