/**
 * The `nodes` section: absent changes nothing; "embedded" or an existing server; plain text to a
 * non-loopback address refused unless said out loud; a project pinned to a node takes nothing
 * local; a pinned project needs a nodes section.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { isRudderError } from '../../../src/errors.js';
import { tempDir } from '../../support/claude-rig.js';

function problem(value: unknown): string {
  try {
    parseConfig(value, 'test', { dataDir: tempDir('cfg-home') });
  } catch (err) {
    if (isRudderError(err, 'CONFIG_INVALID')) return err.message;
    throw err;
  }
  return '';
}

describe('nodes config', () => {
  it('is absent by default, and "embedded" with its defaults when given empty', () => {
    expect(parseConfig({}).nodes).toBeUndefined();
    const n = parseConfig({ nodes: {} }).nodes!;
    expect(n).toMatchObject({ nats: 'embedded', embeddedPort: 4222, heartbeatSeconds: 3, lostAfterSeconds: 15 });
  });

  it('refuses plain NATS to a non-loopback address unless allowPlaintext says so; TLS or loopback pass', () => {
    expect(problem({ nodes: { nats: { url: 'nats://10.0.0.5:4222' } } })).toMatch(
      /nodes\.nats\.allowPlaintext: 10\.0\.0\.5 is not a loopback address.*plain text/,
    );
    expect(problem({ nodes: { nats: { url: 'nats://10.0.0.5:4222', allowPlaintext: true } } })).toBe('');
    expect(problem({ nodes: { nats: { url: 'tls://nats.example.com:4222' } } })).toBe('');
    expect(problem({ nodes: { nats: { url: 'nats://nats.example.com:4222', tls: { ca: '/etc/ca.pem' } } } })).toBe('');
    expect(problem({ nodes: { nats: { url: 'nats://127.0.0.1:4222' } } })).toBe('');
    expect(problem({ nodes: { nats: { url: 'http://x' } } })).toMatch(/nodes\.nats\.url: must be nats:\/\//);
  });

  it('a project on a node takes its path and agent settings from that node, and needs a nodes section', () => {
    expect(problem({ projects: { api: { node: 'gpu', model: 'opus' } } })).toMatch(
      /projects\.api\.model: a project on node gpu takes its model from that node's own config/,
    );
    expect(problem({ projects: { api: { node: 'gpu' } } })).toMatch(
      /projects\.api\.node: project api lives on node gpu, but there is no nodes section/,
    );
    expect(problem({ projects: { api: {} } })).toMatch(/projects\.api\.path: is required \(or set node\)/);
    const cfg = parseConfig({ nodes: {}, projects: { api: { node: 'gpu' } } });
    expect(cfg.projects!.api!.node).toBe('gpu');
    // Its budget is the front's: the front counts what the node's turns cost.
    const budgeted = parseConfig({ nodes: {}, projects: { api: { node: 'gpu', budget: { dailyUsd: 2 } } } });
    expect(budgeted.projects!.api!.budget).toEqual({ dailyUsd: 2 });
  });

  it('refuses a lost threshold a single late heartbeat would cross', () => {
    expect(problem({ nodes: { heartbeatSeconds: 3, lostAfterSeconds: 5 } })).toMatch(
      /nodes\.lostAfterSeconds: must be more than twice heartbeatSeconds/,
    );
  });
});
