/** The agent's permission options as the desk's: its ids and names, Rudder's kind, an effect for lasting ones. */
import { describe, expect, it } from 'vitest';
import { toOptions } from '../../../../src/agents/acp/permissions.js';

describe('permission options', () => {
  it("keeps the agent's ids and names, and gives Rudder's kind and an effect to the lasting ones", () => {
    expect(
      toOptions([
        { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
        { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
        { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
        { optionId: 'never', name: 'Never', kind: 'reject_always' },
      ]),
    ).toEqual([
      { id: 'proceed_always', label: 'Allow for this session', kind: 'allow', effect: expect.any(String) },
      { id: 'proceed_once', label: 'Allow', kind: 'allow' },
      { id: 'cancel', label: 'Reject', kind: 'deny' },
      { id: 'never', label: 'Never', kind: 'deny', effect: expect.any(String) },
    ]);
  });
});
