/** The preset table: each known ACP agent by its backend name, its modes and its quirks. */
import { describe, expect, it } from 'vitest';
import { PRESET_NAMES, PRESETS, presetOfBackend } from '../../../../src/agents/acp/presets.js';
import { PERMISSION_MODES } from '../../../../src/config/permission-modes.js';

describe('presets', () => {
  it('names each preset by its backend, and nothing else', () => {
    expect(presetOfBackend('acp:gemini')).toBe(PRESETS.gemini);
    expect(presetOfBackend('acp')).toBeUndefined();
    expect(presetOfBackend('acp:nope')).toBeUndefined();
    for (const name of PRESET_NAMES) expect(PRESETS[name].name).toBe(name);
  });

  it('maps only real permission modes, and only Claude steers', () => {
    for (const p of Object.values(PRESETS)) {
      for (const mode of Object.keys(p.modes)) expect(PERMISSION_MODES).toContain(mode);
      expect(p.modes.relay).toBeDefined();
      expect(p.steering).toBe(p.name === 'claude');
    }
  });
});
