/**
 * CPU time read from /proc (Linux): of one process, of every process running a program (the
 * database server's processes), and of the whole machine. The benches put these beside their
 * wall times, because on a machine whose cores every process shares, a figure that does not fit
 * the CPU left over cannot be reached by overlapping work.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** utime + stime of a process, in seconds; NaN when it is gone (or no pid is given). */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Busy and total ticks (1/100 s per core) of the whole machine, from /proc/stat. */
export function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/**
 * CPU seconds of every live process whose program is `command` (/proc/<pid>/comm), by pid. Two
 * readings differenced by `cpuSpentSince` give what those processes spent in between; a process
 * that exits in between takes its share with it, so read while the connections are held.
 */
function cpuOfCommand(command: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== command) continue;
    const seconds = cpuSeconds(Number(entry));
    if (Number.isFinite(seconds)) out.set(Number(entry), seconds);
  }
  return out;
}

/** What the processes of `after` spent since `before` (a process started in between counts from 0). */
function cpuSpentSince(before: Map<number, number>, after: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}

/**
 * What the processes running `command` spend from now until `stop()`, read every `everyMs`: a
 * process that exits in between (a pooled connection's backend closed while idle) counts up to
 * its last reading instead of taking its whole share with it. NaN when none ran here.
 */
export function watchCommandCpu(command: string, everyMs = 1_000): { stop(): number } {
  const first = cpuOfCommand(command);
  const last = new Map(first);
  const read = () => {
    for (const [pid, seconds] of cpuOfCommand(command)) last.set(pid, seconds);
  };
  const timer = setInterval(read, everyMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      read();
      return last.size > 0 ? cpuSpentSince(first, last) : Number.NaN;
    },
  };
}
