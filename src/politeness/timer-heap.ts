// One min-heap of (due time, host) for every host of a crawl: waiting hosts cost one entry each
// and no timer, so 100,000 hosts cost memory, not CPU. Entries are never updated in place: a
// rescheduled host pushes a new entry with a new version and the stale one is skipped on pop.

/** A binary min-heap on `time`, stored in parallel arrays (no object per entry). */
export class TimerHeap {
  private times: number[] = [];
  private hosts: string[] = [];
  private versions: number[] = [];

  get size(): number {
    return this.times.length;
  }

  push(time: number, host: string, version: number): void {
    const { times, hosts, versions } = this;
    let i = times.length;
    times.push(time);
    hosts.push(host);
    versions.push(version);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= time) break;
      times[i] = times[parent]!;
      hosts[i] = hosts[parent]!;
      versions[i] = versions[parent]!;
      i = parent;
    }
    times[i] = time;
    hosts[i] = host;
    versions[i] = version;
  }

  /** The earliest entry, or undefined when empty. Valid until the next push or pop. */
  peekTime(): number | undefined {
    return this.times[0];
  }
  peekHost(): string | undefined {
    return this.hosts[0];
  }
  peekVersion(): number | undefined {
    return this.versions[0];
  }

  pop(): void {
    const { times, hosts, versions } = this;
    const n = times.length - 1;
    if (n < 0) return;
    const time = times[n]!;
    const host = hosts[n]!;
    const version = versions[n]!;
    times.pop();
    hosts.pop();
    versions.pop();
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && times[r]! < times[l]! ? r : l;
      if (times[c]! >= time) break;
      times[i] = times[c]!;
      hosts[i] = hosts[c]!;
      versions[i] = versions[c]!;
      i = c;
    }
    times[i] = time;
    hosts[i] = host;
    versions[i] = version;
  }
}
