/** Proportional memory (PSS) of process trees, from /proc: shared pages (the binary) are divided among their users. */
import fs from 'node:fs';

export function pssOf(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let kids: number[] = [];
    try {
      kids = fs
        .readdirSync(`/proc/${p}/task`)
        .flatMap((t) =>
          fs.readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
        );
    } catch {
      return;
    }
    for (const k of kids) out.push(k), walk(k);
  };
  walk(pid);
  return out;
}

/** PSS of the processes and everything they started, each counted once. */
export const treePss = (pids: number[]) =>
  [...new Set(pids.flatMap((p) => [p, ...descendants(p)]))].reduce((n, p) => n + pssOf(p), 0);
