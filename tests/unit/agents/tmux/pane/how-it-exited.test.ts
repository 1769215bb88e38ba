/**
 * A dead pane whose exit status tmux lost (3.3a on a loaded machine) is "exited, status unknown" for the
 * claude-tmux backend, as a status or a signal is when tmux kept it.
 */
import { describe, expect, it } from 'vitest';
import { howItExited } from '../../../../../src/agents/tmux/pane/tmux.js';

describe('how a dead pane exited', () => {
  it('says the status, the signal, or that the status is unknown', () => {
    expect(howItExited({ deadStatus: 3, deadSignal: undefined })).toBe('status 3');
    expect(howItExited({ deadStatus: undefined, deadSignal: 9 })).toBe('signal 9');
    expect(howItExited({ deadStatus: undefined, deadSignal: undefined })).toBe('status unknown');
  });
});
