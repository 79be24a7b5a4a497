// Progress of a crawl on stderr: a bar on a terminal, else a plain line every few seconds (logs
// and CI keep readable history). Never on stdout: stdout carries results.
import cliProgress from 'cli-progress';
import type { CrawlJob, CrawlStats } from '../crawl/crawl-job.js';
import type { Frontier } from '../politeness/types.js';
import { count } from './plural.js';

export interface ProgressReporter {
  stop(): void;
}

const secs = (ms: number) => (ms >= 90_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/** URLs of the run settled: the list's and the redirect targets', not the input lines that were
 *  no URL (they were never to be crawled, and are not in `total`). */
function settled(s: CrawlStats): number {
  let done = 0;
  for (const h of s.hosts.values()) for (const n of Object.values(h.outcomes)) done += n ?? 0;
  return done;
}

/** Start reporting `total` URLs' progress (redirect targets join the total as they are queued,
 *  as every settled one is counted done). `intervalMs`: between plain lines (non-TTY).
 *  `shared`: a fleet worker's, whose list other workers settle too: its redirect targets are the
 *  run's, queued by any worker (this one settles some that others found). `before`: the list's URLs
 *  earlier runs settled (`--resume`), counted as done so that the count is the list's. */
export function startProgress(job: CrawlJob, frontier: Frontier, total: number, intervalMs: number, shared = false, before = 0): ProgressReporter {
  const earlier = before > 0 ? ` (${before} by earlier runs)` : '';
  const tty = process.stderr.isTTY === true;
  let bar: cliProgress.SingleBar | undefined;
  if (tty) {
    bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: 'crawl [{bar}] {value}/{total} | blocked {blocked} | queued {queued} | hosts waiting {waiting} | ETA {left}',
        hideCursor: true,
        clearOnComplete: false,
        barsize: 24,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total + before, before, { blocked: 0, queued: total, waiting: 0, left: '?' });
  }
  let busy = false;
  let stopped = false;
  /** The run's redirect targets at the latest tick (a fleet's, from its frontier). */
  let runRedirects = 0;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const s = job.stats();
      const c = await frontier.counts();
      // A line computed before the run ended must not follow the final one.
      if (stopped) return;
      const done = before + settled(s);
      // This worker's own finds miss the targets other workers queued and this one took.
      runRedirects = Math.max(s.redirectsFound, c.redirects ?? 0);
      const all = before + total + runRedirects;
      if (bar) {
        bar.setTotal(all);
        bar.update(done, { blocked: s.outcomes.blocked, queued: c.queued, waiting: c.hostsWaiting, left: secs(s.etaMs) });
      } else
        // In hand: URLs taken from the frontier, requested or being saved (up to twice --concurrency;
        // "in flight" read as requests, of which there are at most --concurrency).
        process.stderr.write(
          `progress: ${done}/${all} done${earlier}, ${s.outcomes.blocked} blocked, ${c.queued} queued, ${c.inFlight} in hand, ` +
            `${count(c.hostsWaiting, 'host')} waiting on ${c.hostsWaiting === 1 ? 'its' : 'their'} delay, ETA ~${secs(s.etaMs)} (politeness bound)\n`,
        );
    } catch {
      // Progress is best effort; the crawl reports its own errors.
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), tty ? 250 : intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      // The last word is the job's own final counts: the latest tick may be seconds old (a
      // plain line every --progress-interval), and the summary follows at once.
      const s = job.stats();
      const done = settled(s);
      const all = total + Math.max(s.redirectsFound, runRedirects);
      let left = 0;
      for (const h of s.hosts.values()) left += Math.max(0, h.remaining);
      if (bar) {
        bar.setTotal(before + Math.max(all, done + left));
        bar.update(before + done, { blocked: s.outcomes.blocked, queued: left, waiting: 0, left: '-' });
        bar.stop();
      } else if (shared) {
        // The rest of the list went to the other workers: nothing is left undone by this one. The
        // run's redirect targets are not all known here (a tick's count may be seconds old): the
        // ones this worker settled are named apart, not counted against the list.
        const targets = s.redirectTargets;
        const of = targets > 0 ? `${count(done, 'URL')} (${done - targets} of the run's ${total} listed, ${count(targets, 'redirect target')})` : `${count(done, 'URL')} of the run's ${total}`;
        process.stderr.write(`progress: this worker settled ${of}, ${s.outcomes.blocked} blocked (final)\n`);
      } else {
        process.stderr.write(`progress: ${before + done}/${before + Math.max(all, done + left)} done${earlier}, ${s.outcomes.blocked} blocked, ${left} not settled (final)\n`);
      }
    },
  };
}
