/**
 * axe-core (pinned in package.json) run inside the page of a browser test: its script is read from
 * node_modules and evaluated in the page (no network; an evaluated script is not the page's own, so
 * the page's CSP stays as it is). A test expects no serious or critical violation in the state it
 * is checking.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeNode {
  target: string[];
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/**
 * The serious and critical violations on the page as it is now, one line each: the rule, the element and why.
 * `exclude`: selectors of parts another test checks (none by default).
 */
export async function seriousViolations(page: Page, exclude: string[] = []): Promise<string[]> {
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(source);
  const violations = await page.evaluate<AxeViolation[], string[]>(async (ex) => {
    const axe = (globalThis as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: unknown }> } })
      .axe;
    const r = await axe.run({ exclude: ex.map((s) => [s]) }, { resultTypes: ['violations'] });
    return r.violations as AxeViolation[];
  }, exclude);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map(
        (n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ')}`,
      ),
    );
}
