/**
 * The past sessions of a project as /sessions lists them (projects/past-sessions.ts): an agent's own
 * (Codex's threads) shown as Claude Code's are, without Rudder's wrapper, under the agent's own name.
 */
import { describe, expect, it } from 'vitest';
import type { SessionHistory } from '../../../src/agents/history.js';
import { CLAUDE_SESSIONS, knownSession, listedAs, pastSessions } from '../../../src/projects/past-sessions.js';
import { wrapExternal } from '../../../src/security/wrap.js';
import { tempDir } from '../../support/claude-rig.js';

/** An agent that keeps two threads of one directory (what thread/list answers, in its shape). */
const threads: SessionHistory = {
  noun: 'Codex threads',
  list: async (cwds) =>
    cwds.includes('/p')
      ? [
          { id: 't-2', updatedAt: 2_000, preview: wrapExternal('second\nline', { source: 'web:owner' }) },
          { id: 't-1', updatedAt: 1_000 },
        ]
      : [],
  has: async (cwds, id) => cwds.includes('/p') && ['t-1', 't-2'].includes(id),
};

describe('past sessions', () => {
  it("lists an agent's own sessions under its name, their first message without the wrapper", async () => {
    const got = await pastSessions({ history: threads, configDir: tempDir('cfg') }, ['/p'], 10);
    expect(got.noun).toBe('Codex threads');
    expect(got.sessions).toEqual([
      { id: 't-2', file: '', updatedAt: 2_000, firstPrompt: 'second\nline' },
      { id: 't-1', file: '', updatedAt: 1_000 },
    ]);
  });

  it("without an agent's own list, they are Claude Code's files (none in an empty config dir)", async () => {
    expect(await pastSessions({ history: undefined, configDir: tempDir('cfg') }, ['/p'], 10)).toEqual({
      noun: CLAUDE_SESSIONS,
      sessions: [],
    });
  });

  it("knows an agent's session by asking it; none is open in another process", async () => {
    const from = { history: threads, configDir: tempDir('cfg') };
    expect(await knownSession(from, ['/p'], 't-1')).toEqual({ known: true, open: undefined });
    expect(await knownSession(from, ['/q'], 't-1')).toEqual({ known: false, open: undefined });
  });

  it('a listed session keeps only what the person wrote', () => {
    expect(listedAs({ id: 'x', updatedAt: 5, preview: wrapExternal('hi', { source: 'telegram:1' }) }).firstPrompt).toBe(
      'hi',
    );
    expect(listedAs({ id: 'x', updatedAt: 5, preview: wrapExternal('', {}) })).toEqual({
      id: 'x',
      file: '',
      updatedAt: 5,
    });
  });
});
