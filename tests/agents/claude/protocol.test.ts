import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, encodeFrame, interruptRequest, parseLine, userMessage } from '../../../src/agents/claude/protocol/index.js';

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
    expect(p).toEqual({ kind: 'frame', frame: { type: 'unknown', wireType: 'brand_new', raw: { type: 'brand_new', x: 1 } } });
  });

  it('reports malformed lines with a short excerpt', () => {
    const p = parseLine('x'.repeat(1000));
    expect(p.kind).toBe('malformed');
    if (p.kind === 'malformed') expect(p.excerpt.length).toBeLessThan(160);
    expect(parseLine('{"type":"result"}')).toMatchObject({ kind: 'malformed', reason: 'result frame without boolean is_error' });
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
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 500 }), (s) => void parseLine(s)), { numRuns: 2000 });
    fc.assert(fc.property(fc.jsonValue(), (v) => void parseLine(JSON.stringify(v))), { numRuns: 2000 });
  });

  it('round-trips valid frames', () => {
    const frame = fc.record({
      type: fc.constantFrom('result'),
      subtype: fc.string(),
      is_error: fc.boolean(),
      session_id: fc.uuid(),
      result: fc.string({ unit: 'grapheme' }),
      num_turns: fc.nat(),
    });
    fc.assert(
      fc.property(frame, (f) => {
        const p = parseLine(JSON.stringify(f));
        expect(p).toEqual({ kind: 'frame', frame: f });
      }),
    );
  });

  it('encodes stdin frames as one line each', () => {
    const line = encodeFrame(userMessage('multi\nline', 'u1'));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ type: 'user', message: { role: 'user', content: 'multi\nline' }, parent_tool_use_id: null, session_id: '', uuid: 'u1' });
    expect(JSON.parse(encodeFrame(interruptRequest('r1', true)))).toEqual({ type: 'control_request', request_id: 'r1', request: { subtype: 'interrupt', cancel_queued: true } });
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
