/** The review actions the front sent to a node: one per conversation at a time, and the lane sees it while it runs. */
import { describe, expect, it } from 'vitest';
import { isRudderError } from '../../../../src/errors.js';
import { RemoteActions } from '../../../../src/nodes/front/remote-review.js';

describe('RemoteActions', () => {
  it('says the running action until it ends, done or failed, and refuses a second one meanwhile', async () => {
    const actions = new RemoteActions();
    let finish!: (v: string) => void;
    const running = actions.run('web:c-1', 'commit', () => new Promise<string>((r) => (finish = r)));
    expect(actions.acting('web:c-1')).toBe('commit');
    expect(actions.acting('web:c-2')).toBeUndefined();
    const second = await actions.run('web:c-1', 'merge', async () => 'never').catch((e: unknown) => e);
    expect(isRudderError(second, 'REVIEW_IN_PROGRESS')).toBe(true);
    expect(await actions.run('web:c-2', 'push', async () => 'pushed')).toBe('pushed');
    finish('done');
    expect(await running).toBe('done');
    expect(actions.acting('web:c-1')).toBeUndefined();
    await expect(actions.run('web:c-1', 'merge', () => Promise.reject(new Error('refused')))).rejects.toThrow(
      'refused',
    );
    expect(actions.acting('web:c-1')).toBeUndefined();
  });
});
