/**
 * A conversation's launch by its project (projects/launches.ts, moved out of agents/): the backend
 * of its project picks the table entry, a project on a node gets the session the caller registered,
 * the saved session is resumed and a new one kept under the project, and the agents' health reads
 * the backends of the local projects only. A real store and real projects; no process is started.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeStreamSession } from '../../../src/agents/claude/stream-session.js';
import { CodexSession } from '../../../src/agents/codex/codex-session.js';
import type { AgentSession } from '../../../src/agents/session.js';
import { LiveConfig, parseConfig } from '../../../src/config/load.js';
import { isRudderError } from '../../../src/errors.js';
import type { RemoteLaunch } from '../../../src/nodes/front/remote-launch.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { AgentLaunches } from '../../../src/projects/launches.js';
import { Projects } from '../../../src/projects/service.js';
import { Store } from '../../../src/store/store.js';
import { tempDir } from '../../support/claude-rig.js';

const made: AgentSession[] = [];
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(made.map((s) => s.stop('test over')));
  for (const close of closers) await close();
});

function rig(remote?: (launch: RemoteLaunch) => AgentSession, projects: Record<string, unknown> = {}) {
  const dataDir = tempDir('launches');
  const config = new LiveConfig(
    undefined,
    parseConfig({
      web: { enabled: false },
      nodes: {},
      projects: {
        web: { path: tempDir('web') },
        api: { path: tempDir('api'), backend: 'codex' },
        gpu: { node: 'gpu' },
        ...projects,
      },
    }),
  );
  const log = silentLogger();
  const store = new Store(path.join(dataDir, 'rudder.db'));
  const set = new Projects({ store, config: () => config.current(), env: process.env, log });
  const launches = new AgentLaunches({
    dataDir,
    config,
    store,
    projects: set,
    env: process.env,
    log,
    memAvailable: undefined,
    ...(remote ? { remote: { session: remote } } : {}),
  });
  closers.push(async () => {
    await launches.stop('test over');
    await store.close();
  });
  const conversation = (id: string, project: string) => {
    store.ensureConversation(id, 'web', id.slice(4));
    set.bind(id, project);
    return id;
  };
  return { launches, store, conversation, live: launches.factory().live };
}

describe('agent launches', () => {
  it("makes the session of the conversation's project's backend, and names its agent", () => {
    const { launches, conversation, live } = rig();
    const web = conversation('web:w', 'web');
    const api = conversation('web:a', 'api');
    const s1 = live(web, undefined);
    const s2 = live(api, 'thread-1');
    made.push(s1, s2);
    expect(s1).toBeInstanceOf(ClaudeStreamSession);
    expect(s2).toBeInstanceOf(CodexSession);
    expect(s2.sessionId()).toBe('thread-1');
    expect(launches.agentName(web)).toBe('Claude');
    expect(launches.agentName(api)).toBe('Codex');
  });

  it('a project on a node gets the session the caller registered, or a config error naming the fix', () => {
    const launched: RemoteLaunch[] = [];
    const remote = (l: RemoteLaunch) => {
      launched.push(l);
      return { backend: `node:${l.node}` } as AgentSession;
    };
    const { launches, conversation, live, store } = rig(remote);
    const gpu = conversation('web:g', 'gpu');
    expect(live(gpu, 'sid-9').backend).toBe('node:gpu');
    expect(launched[0]).toMatchObject({ conversationId: gpu, node: 'gpu', project: 'gpu', sessionId: 'sid-9' });
    launched[0]!.onSessionId('sid-10');
    expect(store.projects.get(gpu, 'gpu')?.sessionId).toBe('sid-10');
    expect(launches.agentName(gpu)).toBe('the agent on node gpu');

    const alone = rig();
    const err = (() => {
      try {
        alone.live(alone.conversation('web:g2', 'gpu'), undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(isRudderError(err, 'CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toContain('Project gpu lives on node gpu');
  });

  it("checks the binaries of agent.backend and of the projects' backends, each once", async () => {
    const both = rig();
    expect((await both.launches.health.refresh()).map((c) => c.agent)).toEqual(['Claude', 'Codex']);
    const { launches } = rig(undefined, { api: { path: tempDir('api'), backend: 'claude-tmux' } });
    expect((await launches.health.refresh()).map((c) => c.agent)).toEqual(['Claude']);
    expect(launches.health.current()).toMatchObject({ claude: { agent: 'Claude' }, codex: null });
  });
});
