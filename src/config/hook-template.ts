/**
 * The grammar of a hook's prompt template (`{{a.b.c}}` fields), as the config checks it: a field is a path of
 * names of letters, digits, `_` and `-` joined by dots, array indices as numbers, nothing evaluated. Filling a
 * template from a delivery's payload is the hook's (hooks/template.ts).
 */

/** Deeper paths are refused when the config is read: no payload field worth a prompt is that deep. */
export const MAX_PATH_SEGMENTS = 12;

export const FIELD = /\{\{([^{}]*)\}\}/g;
const SEGMENT = /^[A-Za-z0-9_-]{1,100}$/;

/** The path of a field's inside, or undefined when it is not one. */
export function fieldPath(inside: string): string[] | undefined {
  const path = inside.trim().split('.');
  if (path.length > MAX_PATH_SEGMENTS || !path.every((s) => SEGMENT.test(s))) return undefined;
  return path;
}

/** What is wrong with a template, one line each; empty when it renders. */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  for (const m of template.matchAll(FIELD)) {
    const inside = m[1] ?? '';
    if (!fieldPath(inside))
      problems.push(
        `{{${inside}}} is not a field: write a path of names joined by dots, e.g. {{repository.full_name}} or ` +
          '{{pull_requests.0.number}}',
      );
  }
  const rest = template.replace(FIELD, '');
  if (rest.includes('{{') || rest.includes('}}'))
    problems.push('has a "{{" or "}}" that does not close a field, e.g. {{repository.full_name}}');
  return problems;
}
