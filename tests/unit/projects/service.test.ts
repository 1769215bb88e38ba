/** A conversation's project and its session per project, on a real SQLite store. */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { Projects } from '../../../src/projects/service.js';
import { Store } from '../../../src/store/store.js';
import { tempDir } from '../../support/claude-rig.js';

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function rig(config: Record<string, unknown>) {
  const dataDir = tempDir('sdata');
  const store = new Store(path.join(dataDir, 'rudder.db'));
  stores.push(store);
  let cfg: Config = parseConfig(config, 'config', { dataDir });
  const projects = new Projects({ store, config: () => cfg, env: process.env, log: silentLogger() });
  return {
    store,
    projects,
    setConfig: (c: Record<string, unknown>) => void (cfg = parseConfig(c, 'config', { dataDir })),
  };
}

describe('the project of a conversation', () => {
  const api = tempDir('api');
  const web = tempDir('web');
  const two = { projects: { api: { path: api }, web: { path: web } } };

  it('is its channel binding (topic, then chat), else the default; recorded at first use', () => {
    const { store, projects, setConfig } = rig({ ...two, channels: { telegram: { projects: { '-100:7': 'web' } } } });
    store.ensureConversation('telegram:-100:7', 'telegram', '-100:7');
    store.ensureConversation('telegram:-100:8', 'telegram', '-100:8');
    expect(projects.peek('telegram:-100:7').name).toBe('web');
    expect(store.conversation('telegram:-100:7')!.project).toBeNull();
    expect(projects.prepare('telegram:-100:7')).toMatchObject({ cwd: web, rebound: false });
    expect(projects.prepare('telegram:-100:8').cwd).toBe(api);
    expect(store.conversation('telegram:-100:7')!.project).toBe('web');
    // A later default does not move a conversation that has worked.
    setConfig({ ...two, defaultProject: 'web' });
    expect(projects.prepare('telegram:-100:8').cwd).toBe(api);
  });

  it('keeps a session per project: moving back resumes the one it had there', () => {
    const { store, projects } = rig(two);
    store.ensureConversation('web:c', 'web', 'c');
    projects.prepare('web:c');
    store.setSessionId('web:c', 'sess-api');
    expect(projects.bind('web:c', 'web')).toMatchObject({ resumes: null, changed: true });
    expect(store.conversation('web:c')).toMatchObject({ project: 'web', sessionId: null });
    store.setSessionId('web:c', 'sess-web');
    // A late report from the process that still ran in api lands in api, not in web.
    store.setProjectSession('web:c', 'api', 'sess-api-2');
    expect(store.conversation('web:c')!.sessionId).toBe('sess-web');
    expect(projects.bind('web:c', 'api')).toMatchObject({ resumes: 'sess-api-2', changed: true });
    expect(store.conversation('web:c')).toMatchObject({ project: 'api', sessionId: 'sess-api-2' });
    expect(projects.bind('web:c', 'web').resumes).toBe('sess-web');
    expect(() => projects.bind('web:c', 'nope')).toThrow(/There is no project "nope"\. Projects: api, web\./);
  });

  it(
    'moves a conversation whose project was removed from the config to the default, with the session it had ' + 'there',
    () => {
      const { store, projects, setConfig } = rig(two);
      store.ensureConversation('web:m', 'web', 'm');
      projects.bind('web:m', 'api');
      store.setSessionId('web:m', 'in-api');
      projects.bind('web:m', 'web');
      store.setSessionId('web:m', 'in-web');
      setConfig({ projects: { api: { path: api } } });
      expect(projects.prepare('web:m')).toMatchObject({ cwd: api, rebound: true });
      expect(store.conversation('web:m')).toMatchObject({ project: 'api', sessionId: 'in-api' });
    },
  );

  it('without projects, works in agent.cwd and keeps the session it had before projects existed', () => {
    const { store, projects } = rig({ agent: { cwd: api } });
    store.ensureConversation('web:old', 'web', 'old');
    store.setSessionId('web:old', 'from-before');
    expect(projects.prepare('web:old')).toMatchObject({ cwd: api, project: { name: 'default', implicit: true } });
    expect(store.conversation('web:old')).toMatchObject({ project: 'default', sessionId: 'from-before' });
  });
});
