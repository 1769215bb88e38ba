/**
 * The first steps of several machines, as a new user takes them on the built CLI: `rudder node --help` names the
 * command that runs a node once (`rudder node`, no `run` beside it), and `rudder start` says when a project is
 * pinned to a node that no `rudder node add` made, with the commands that add it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startChild } from '../../support/gateway-rig.js';
import { freePort } from '../../support/nodes-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';

let front: Awaited<ReturnType<typeof startChild>> | undefined;

afterAll(async () => {
  await front?.stop();
});

describe('first steps with nodes', { timeout: 120_000 }, () => {
  it('rudder node --help lists one way to run a node', async () => {
    const help = await runCli(['node', '--help'], { env: cleanEnv({ RUDDER_HOME: tempDir('help-home') }) });
    expect(help.status).toBe(0);
    expect(help.stdout).not.toMatch(/^ +run\b/m);
    expect(help.stdout).toMatch(/^ +add \[options\] <name>/m);
    expect(help.stdout).toContain('then  rudder node');
  });

  it('rudder start warns of a project pinned to a node not added yet', async () => {
    const config = {
      agent: agentConfig('http://127.0.0.1:9', tempDir('steps-chome')),
      projects: { train: { node: 'gpu' } },
      nodes: { embeddedPort: await freePort() },
    };
    front = await startChild(config, { home: tempDir('steps-home'), cwd: tempDir('steps-cwd') });
    expect(front.output()).toContain(
      'rudder: warning: project "train" runs on node gpu, which is not added yet: its messages wait until that ' +
        'node runs. Run `rudder node add gpu` here, then `rudder node join` and `rudder node` on that machine.',
    );
  });
});
