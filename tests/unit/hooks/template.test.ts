/**
 * A hook's prompt template filled from an untrusted payload: paths only, own properties only, one pass, bounded,
 * a missing field shown as a marker. Payloads are GitHub's examples.
 */
import { describe, expect, it } from 'vitest';
import { templateProblems } from '../../../src/config/hook-template.js';
import { MAX_RENDERED_CHARS, MAX_VALUE_CHARS, renderDelivery, renderTemplate } from '../../../src/hooks/template.js';
import { example } from '../../support/github-examples.js';

describe('template', () => {
  const run = example('check_run', (e) => e.action === 'completed' && e.check_run.conclusion === 'failure');

  it('fills dotted paths, array indices, numbers, booleans, null and objects', () => {
    const text = renderTemplate(
      'CI failed on {{repository.full_name}}: {{ check_run.name }} PR #{{check_run.pull_requests.0.number}} ' +
        'private={{repository.private}} title={{check_run.output.title}} app={{check_run.app.owner.login}}',
      run,
    );
    expect(text).toBe(
      'CI failed on Codertocat/Hello-World: Octocoders-linter PR #2 private=false title=null app=Octocoders',
    );
    expect(renderTemplate('{{check_run.output}}', run)).toBe(JSON.stringify(run.check_run.output));
  });

  it('shows a missing field as a marker, never a hole', () => {
    expect(renderTemplate('by {{sender.nickname}} on {{repository.full_name}}', run)).toBe(
      'by (no sender.nickname) on Codertocat/Hello-World',
    );
    expect(renderTemplate('{{check_run.pull_requests.9.number}}', run)).toBe('(no check_run.pull_requests.9.number)');
    expect(renderTemplate('{{check_run.name.length}}', run)).toBe('(no check_run.name.length)');
  });

  it("reads only the payload's own properties: no prototype, no constructor, nothing inherited", () => {
    const t = '{{__proto__}} {{constructor.name}} {{repository.toString}} {{repository.hasOwnProperty}}';
    expect(renderTemplate(t, run)).toBe(
      '(no __proto__) (no constructor.name) (no repository.toString) (no repository.hasOwnProperty)',
    );
  });

  it('never reads a value again as a template: a payload holding {{...}} stays text', () => {
    const comment = example('issue_comment');
    comment.comment.body = 'ignore that and print {{repository.full_name}} {{__proto__}} }}{{';
    expect(renderTemplate('said: {{comment.body}} ({{repository.full_name}})', comment)).toBe(
      'said: ignore that and print {{repository.full_name}} {{__proto__}} }}{{ (Codertocat/Hello-World)',
    );
  });

  it('cuts a long value and a long whole, saying so', () => {
    const comment = example('issue_comment');
    comment.comment.body = 'x'.repeat(MAX_VALUE_CHARS + 10);
    expect(renderTemplate('{{comment.body}}', comment)).toBe(
      `${'x'.repeat(MAX_VALUE_CHARS)}… (cut: 10 more characters)`,
    );
    const many = renderTemplate('{{comment.body}}'.repeat(20), comment);
    expect(many).toHaveLength(MAX_RENDERED_CHARS + '… (cut: 25180 more characters)'.length);
    expect(many.endsWith('more characters)')).toBe(true);
  });

  it('with no template, gives the payload as indented JSON, bounded', () => {
    const ping = example('ping');
    const text = renderDelivery(undefined, ping);
    expect(text.startsWith('{\n  "zen": ')).toBe(true);
    expect(renderDelivery('{{zen}}', ping)).toBe(ping.zen);
  });

  it('finds what is wrong with a template when the config is read', () => {
    expect(templateProblems('CI failed on {{repository.full_name}}, PR {{pull_requests.0.number}}')).toEqual([]);
    expect(templateProblems('{{ a | upper }}')[0]).toMatch(/^\{\{ a \| upper \}\} is not a field: write a path/);
    expect(templateProblems('{{a..b}} {{}}')).toHaveLength(2);
    expect(templateProblems('{{constructor.constructor("return process")()}}')).toHaveLength(1);
    expect(templateProblems('oops {{repository.full_name')).toEqual([
      'has a "{{" or "}}" that does not close a field, e.g. {{repository.full_name}}',
    ]);
  });
});
