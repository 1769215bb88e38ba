/**
 * What `rudder send` and `rudder status` say, against a gateway in a child process (real CLI, mock
 * Messages API): send says in words what happened to the message (started, answered), keeps the
 * agent's text blocks apart, and with --new starts a conversation in the project --project names
 * (an unknown one is refused, listing the projects); status's text says whether a spare process is
 * kept, and why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startChild } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startChild>>;

beforeAll(async () => {
  mock = await startMockApi();
  // A message tagged `parts`: a first text block with a tool call, then the answer after it.
  let parts = false;
  mock.setScript((req) => {
    if (req.side) return undefined;
    if (!req.afterTool) parts = req.lastText.includes('tag:parts');
    if (!parts) return undefined;
    if (!req.afterTool) return { kind: 'tool', name: 'Bash', input: { command: 'echo hi' }, text: 'Let me look.' };
    parts = false;
    return { kind: 'text', text: 'All good.' };
  });
  gw = await startChild({
    agent: agentConfig(mock.url, tempDir('chome')),
    projects: { site: { path: tempDir('site') }, api: { path: tempDir('api') } },
    defaultProject: 'site',
  });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

const rudder = (args: string[]) =>
  runCli(args, { cwd: gw.cwd, env: cleanEnv({ RUDDER_HOME: gw.home, RUDDER_URL: gw.ep.base }) });

async function projectOf(conv: string): Promise<string> {
  const r = await fetch(`${gw.ep.base}/api/conversations/${conv}`, {
    headers: { authorization: `Bearer ${gw.ep.token}` },
  });
  return ((await r.json()) as { project: string }).project;
}

describe('rudder send says what happened', () => {
  it('says the agent started on it and that it was answered; text blocks stay apart', async () => {
    const r = await rudder(['send', '--new', 'says1', 'check it tag:parts']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^sent m_\w+: the agent started on it$/m);
    expect(r.stderr).toMatch(/^answered m_\w+$/m);
    expect(r.stdout).toMatch(/^Let me look\.\n\nAll good\.\n$/);
  });

  it('--new --project starts the conversation in that project; an unknown project is refused', async () => {
    const r = await rudder(['send', '--new', '--project', 'api', 'says2', 'hello tag:proj']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('ok tag:proj');
    expect(await projectOf('says2')).toBe('api');
    const bad = await rudder(['send', '--new', '--project', 'nope', 'says3', 'hello']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('rudder send: there is no project "nope". Projects: site, api.');
    expect(mock.requests.some((q) => q.lastUserText.includes('says3'))).toBe(false);
  });
});

describe('rudder status', () => {
  it('says whether a spare process is kept, and why', async () => {
    const r = await rudder(['status']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Spare process: (on|off) \(.+\)$/m);
  });
});
