/** The channel registry (channels/registry.ts): a factory per chat channel, and only enabled ones are built. */
import { describe, expect, it } from 'vitest';
import { channelFactories, createChannels, hasQrPairing } from '../../../src/channels/registry.js';
import { channelsSchema } from '../../../src/config/channels-schema.js';
import { silentLogger } from '../../../src/ops/logger.js';

describe('channel registry', () => {
  it('has a factory per chat channel and builds only enabled ones', async () => {
    expect(Object.keys(channelFactories).sort()).toEqual(['discord', 'slack', 'telegram', 'whatsapp']);
    const config = channelsSchema.parse({ telegram: { token: '1:abc' }, discord: { enabled: false }, whatsapp: {} });
    const built = await createChannels(config, { dataDir: '/tmp/rudder-registry', logger: silentLogger() });
    expect(built.map((c) => c.name)).toEqual(['telegram', 'whatsapp']);
    expect(built.map(hasQrPairing)).toEqual([false, true]);
    expect(built.every((c) => c.status().state === 'stopped')).toBe(true);
  });
});
