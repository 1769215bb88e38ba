import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ContentBlock,
  encodeFrame,
  interruptRequest,
  LineSplitter,
  type OutputFrame,
  parseLine,
  userMessage,
} from '../../../../src/agents/claude/protocol/index.js';

const text = fc.string({ unit: 'grapheme' });
const usage = fc.record(
  {
    input_tokens: fc.nat(),
    output_tokens: fc.nat(),
    cache_read_input_tokens: fc.nat(),
    cache_creation_input_tokens: fc.nat(),
  },
  { requiredKeys: [] },
);
const toolInput = fc.record({ command: text, description: text, file_path: text }, { requiredKeys: [] });
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('thinking'), thinking: text }),
  fc.record({
    type: fc.constant('tool_use'),
    id: fc.string(),
    name: fc.constantFrom('Bash', 'Read', 'Edit'),
    input: toolInput,
  }),
  fc.record(
    {
      type: fc.constant('tool_result'),
      tool_use_id: fc.string(),
      content: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }))),
      is_error: fc.boolean(),
    },
    { requiredKeys: ['type', 'tool_use_id', 'content'] },
  ),
);

/** Every modelled stdout frame type, with the fields the parser requires and a mix of the optional ones. */
const FRAMES: { [K in Exclude<OutputFrame['type'], 'unknown'>]: fc.Arbitrary<Extract<OutputFrame, { type: K }>> } = {
  system: fc.oneof(
    fc.record(
      {
        type: fc.constant('system'),
        subtype: fc.constant('init'),
        session_id: fc.uuid(),
        model: fc.string(),
        cwd: fc.string(),
        tools: fc.array(fc.string()),
        claude_code_version: fc.string(),
      },
      { requiredKeys: ['type', 'subtype', 'session_id'] },
    ),
    fc.record(
      {
        type: fc.constant('system'),
        subtype: fc.constantFrom('status', 'api_retry', 'task_started', 'compact_boundary'),
        session_id: fc.uuid(),
        attempt: fc.nat(),
        max_retries: fc.nat(),
        retry_delay_ms: fc.nat(),
        error_status: fc.nat(),
      },
      { requiredKeys: ['type', 'subtype'] },
    ),
  ),
  assistant: fc.record(
    {
      type: fc.constant('assistant'),
      message: fc.record(
        {
          id: fc.string(),
          role: fc.constant('assistant'),
          model: fc.string(),
          content: fc.array(block, { maxLength: 3 }),
          stop_reason: fc.option(fc.string(), { nil: null }),
          usage,
        },
        { requiredKeys: ['role', 'content'] },
      ),
      session_id: fc.uuid(),
      parent_tool_use_id: fc.option(fc.string(), { nil: null }),
      uuid: fc.uuid(),
      error: fc.constantFrom('rate_limit', 'server_error'),
      aborted: fc.boolean(),
    },
    { requiredKeys: ['type', 'message'] },
  ),
  user: fc.record(
    {
      type: fc.constant('user'),
      message: fc.record({ role: fc.constant('user'), content: fc.oneof(text, fc.array(block, { maxLength: 3 })) }),
      session_id: fc.uuid(),
      parent_tool_use_id: fc.option(fc.string(), { nil: null }),
      uuid: fc.uuid(),
      isReplay: fc.boolean(),
    },
    { requiredKeys: ['type', 'message'] },
  ),
  stream_event: fc.record(
    {
      type: fc.constant('stream_event'),
      event: fc.record(
        {
          type: fc.constantFrom('content_block_delta', 'message_start', 'message_stop'),
          index: fc.nat(),
          delta: fc.record(
            { type: fc.constantFrom('text_delta', 'input_json_delta'), text, partial_json: fc.string() },
            { requiredKeys: ['type'] },
          ),
        },
        { requiredKeys: ['type'] },
      ),
      session_id: fc.uuid(),
      parent_tool_use_id: fc.option(fc.string(), { nil: null }),
    },
    { requiredKeys: ['type', 'event'] },
  ),
  rate_limit_event: fc.record(
    {
      type: fc.constant('rate_limit_event'),
      rate_limit_info: fc.record(
        {
          status: fc.constantFrom('allowed', 'allowed_warning', 'rejected'),
          resetsAt: fc.nat(),
          rateLimitType: fc.string(),
        },
        { requiredKeys: ['status'] },
      ),
      session_id: fc.uuid(),
    },
    { requiredKeys: ['type', 'rate_limit_info'] },
  ),
  result: fc.record(
    {
      type: fc.constant('result'),
      subtype: fc.string(),
      is_error: fc.boolean(),
      result: text,
      errors: fc.array(fc.string()),
      session_id: fc.uuid(),
      num_turns: fc.nat(),
      duration_ms: fc.nat(),
      total_cost_usd: fc.nat(),
      usage,
      terminal_reason: fc.constantFrom('completed', 'aborted_tools'),
      api_error_status: fc.option(fc.nat(), { nil: null }),
      user_message_uuids: fc.array(fc.uuid()),
    },
    { requiredKeys: ['type', 'subtype', 'is_error', 'session_id'] },
  ),
  control_request: fc.record({
    type: fc.constant('control_request'),
    request_id: fc.string(),
    request: fc.record(
      {
        subtype: fc.constantFrom('can_use_tool', 'hook_callback'),
        tool_name: fc.string(),
        input: toolInput,
        tool_use_id: fc.string(),
      },
      { requiredKeys: ['subtype'] },
    ),
  }),
  control_response: fc.record({
    type: fc.constant('control_response'),
    response: fc.record(
      {
        subtype: fc.constantFrom('success', 'error'),
        request_id: fc.string(),
        response: fc.record(
          { still_queued: fc.array(fc.uuid()), cancelled: fc.array(fc.uuid()) },
          { requiredKeys: [] },
        ),
        error: fc.string(),
      },
      { requiredKeys: ['subtype', 'request_id'] },
    ),
  }),
  command_lifecycle: fc.record(
    {
      type: fc.constant('command_lifecycle'),
      command_uuid: fc.uuid(),
      state: fc.constantFrom('queued', 'started', 'completed', 'cancelled'),
      session_id: fc.uuid(),
    },
    { requiredKeys: ['type', 'command_uuid', 'state'] },
  ),
};

describe('stream-json line parser', () => {
  it('parses each modelled frame type', () => {
    const lines = [
      '{"type":"system","subtype":"init","session_id":"s1","model":"m"}',
      '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}',
      '{"type":"user","message":{"role":"user","content":"x"},"isReplay":true,"uuid":"u"}',
      '{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"h"}}}',
      '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1}}',
      '{"type":"result","subtype":"success","is_error":false,"session_id":"s1"}',
      '{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool"}}',
      '{"type":"control_response","response":{"subtype":"success","request_id":"r"}}',
      '{"type":"command_lifecycle","command_uuid":"u","state":"started"}',
    ];
    for (const line of lines) {
      const p = parseLine(line);
      expect(p.kind).toBe('frame');
      if (p.kind === 'frame') expect(p.frame.type).toBe(JSON.parse(line).type);
    }
  });

  it('keeps unknown frames as unknown with their wire type', () => {
    const p = parseLine('{"type":"brand_new","x":1}');
    expect(p).toEqual({
      kind: 'frame',
      frame: { type: 'unknown', wireType: 'brand_new', raw: { type: 'brand_new', x: 1 } },
    });
  });

  it('reports malformed lines with a short excerpt', () => {
    const p = parseLine('x'.repeat(1000));
    expect(p.kind).toBe('malformed');
    if (p.kind === 'malformed') expect(p.excerpt.length).toBeLessThan(160);
    expect(parseLine('{"type":"result"}')).toMatchObject({
      kind: 'malformed',
      reason: 'result frame without boolean is_error',
    });
    expect(parseLine('   ')).toEqual({ kind: 'blank' });
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        const p = parseLine(Buffer.from(bytes).toString('utf8'));
        expect(['frame', 'blank', 'malformed']).toContain(p.kind);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 500 }), (s) => void parseLine(s)),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => void parseLine(JSON.stringify(v))),
      { numRuns: 2000 },
    );
  });

  it('round-trips valid frames of every modelled type', () => {
    for (const [type, arb] of Object.entries(FRAMES)) {
      fc.assert(
        fc.property(arb as fc.Arbitrary<OutputFrame>, (f) => {
          expect(f.type).toBe(type);
          expect(parseLine(JSON.stringify(f))).toEqual({ kind: 'frame', frame: f });
        }),
        { numRuns: 200 },
      );
    }
  });

  it('encodes stdin frames as one line each', () => {
    const line = encodeFrame(userMessage('multi\nline', 'u1'));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      type: 'user',
      message: { role: 'user', content: 'multi\nline' },
      parent_tool_use_id: null,
      session_id: '',
      uuid: 'u1',
    });
    expect(JSON.parse(encodeFrame(interruptRequest('r1', true)))).toEqual({
      type: 'control_request',
      request_id: 'r1',
      request: { subtype: 'interrupt', cancel_queued: true },
    });
  });
});

describe('line splitter', () => {
  it('joins lines split across chunks, including inside a multi-byte character', () => {
    const s = new LineSplitter();
    const bytes = Buffer.from('{"a":"é"}\n{"b":2}\npartial');
    const out: string[] = [];
    for (let i = 0; i < bytes.length; i += 3) out.push(...s.push(bytes.subarray(i, i + 3)).lines);
    expect(out).toEqual(['{"a":"é"}', '{"b":2}']);
    expect(s.end()).toBe('partial');
  });

  it('cuts an over-long line and reports it', () => {
    const s = new LineSplitter(10);
    const r = s.push('0123456789ABCDEF');
    expect(r.overflow).toBe(true);
    expect(r.lines).toEqual(['0123456789ABCDEF']);
  });
});
