// What earlier runs in --out left: the URLs they settled and the redirects they left unfollowed
// (--resume), and when each host last saw one of their requests (its first request now keeps the
// interval from it).
import path from 'node:path';
import { auditFiles, openAudit } from '../audit/reader.js';
import { removeStaleTemporaries } from '../crawl/document-store.js';
import { count as plural } from './plural.js';
import { readResumeSeeds, type HostSeed } from './resume-seeds.js';

export interface EarlierRunsOptions {
  readonly outDir: string;
  readonly auditName: string;
  readonly list: { readonly urls: readonly { url: string }[] };
  /** sha256 of the list's URLs, as recorded in a run's options. */
  readonly listSha256: string;
  readonly resume: boolean;
  readonly redis: boolean;
  readonly userAgent: string;
  readonly productToken: readonly string[];
  /** --purpose, or null without one. */
  readonly purpose: string | null;
  readonly say: (s: string) => void;
}

export interface EarlierRuns {
  readonly done: ReadonlySet<string>;
  /** Per host: its last response in an earlier run, and the interval to keep from it. */
  readonly lastSent: ReadonlyMap<string, HostSeed>;
  readonly unfollowed: readonly { url: string; parentUrl: string; depth: number }[];
  readonly resumeOf: string | null;
}

/** Read the earlier runs before this run appends. @returns 'usage' (resuming as another identity)
 *  or 'audit' (the audit cannot be read to resume from), said on stderr. */
export function readEarlierRuns(o: EarlierRunsOptions): EarlierRuns | 'usage' | 'audit' {
  let done = new Set<string>();
  // When each host last saw a request from an earlier run in DIR (Ctrl-C, then --resume at once):
  // this run's first request to it keeps the interval that run kept (its Crawl-delay too) from
  // that one; a run killed with requests in flight counts as answered when it was gone.
  let lastSent = new Map<string, HostSeed>();
  if (!o.redis && auditFiles(o.outDir).length > 0) {
    try {
      const reader = openAudit(o.outDir);
      const read = readResumeSeeds(reader, listHosts(o.list.urls), Date.now());
      reader.close();
      lastSent = read.seeds;
      // A run killed mid-write left its temporary files beside the documents; none is a document.
      if (read.unfinished.length > 0) {
        const removed = removeStaleTemporaries(o.outDir);
        if (removed > 0) o.say(`removed ${plural(removed, 'partly written document')} (.~rg-….part) that a run which did not end cleanly left in ${o.outDir}`);
      }
      for (const u of read.unfinished) {
        o.say(
          `run ${u.runId} did not end cleanly (no end recorded: killed?): requests it had in flight left no row, so ${plural(u.hosts, 'host')} it may have been sending to ${u.hosts === 1 ? 'is' : 'are'} taken as answered at ${new Date(u.diedBy).toISOString()}, when it was gone at the latest: the first request to each waits its full interval from then`,
        );
      }
    } catch {
      // An unreadable audit is reported below (--resume) or appended to; nothing to seed from.
    }
  }
  let resumeOf: string | null = null;
  let unfollowed: { url: string; parentUrl: string; depth: number }[] = [];
  if (!o.resume && !o.redis && auditFiles(o.outDir).includes(o.auditName)) {
    o.say(`${path.join(o.outDir, o.auditName)} holds earlier runs: this run is added to it (--resume skips the URLs they settled)`);
  }
  if (o.resume) {
    if (auditFiles(o.outDir).length === 0) o.say(`nothing to resume in ${o.outDir}: starting afresh`);
    else {
      try {
        const reader = openAudit(o.outDir);
        // The run being resumed: the newest that sent anything. A run that recorded no row (all
        // settled before it, or stopped at once) resumed nothing of its own; naming it sent the
        // user looking at an empty run.
        const runs = reader.runs();
        const last = [...runs].reverse().find((r) => r.attempts > 0) ?? runs.at(-1);
        // URLs settled as one user agent are not settled for another (its rules may differ):
        // resuming would skip them, and the audit would mix two identities.
        // The same holds for the token matched: a run from before --product-token recorded none, and
        // matched the token read from the same --user-agent.
        const tokensOf = (options: Readonly<Record<string, unknown>>) => JSON.stringify(options.productToken ?? []);
        const otherAgent = runs.find((r) => r.userAgent !== o.userAgent || tokensOf(r.options) !== JSON.stringify(o.productToken));
        if (otherAgent) {
          reader.close();
          o.say(
            otherAgent.userAgent !== o.userAgent
              ? `cannot --resume: ${o.outDir} was crawled as ${JSON.stringify(otherAgent.userAgent)} (run ${otherAgent.runId}), not ${JSON.stringify(o.userAgent)}; use another --out, or the same --user-agent`
              : `cannot --resume: ${o.outDir} was crawled with --product-token ${tokensOf(otherAgent.options)} (run ${otherAgent.runId}), not ${JSON.stringify(o.productToken)}; use another --out, or the same --product-token`,
          );
          return 'usage';
        }
        // URLs settled under one purpose were fetched, kept or refused for it: resumed under another,
        // documents the new one reserves would stay kept, and rows refused for the old one stay refused.
        const purposeOf = (options: Readonly<Record<string, unknown>>) => (typeof options.purpose === 'string' ? options.purpose : null);
        const otherPurpose = runs.find((r) => purposeOf(r.options) !== o.purpose);
        if (otherPurpose) {
          reader.close();
          const was = purposeOf(otherPurpose.options);
          o.say(
            `cannot --resume: ${o.outDir} was crawled ${was === null ? 'without --purpose' : `with --purpose ${was}`} (run ${otherPurpose.runId}), not ${o.purpose === null ? 'without one' : `with --purpose ${o.purpose}`}; use another --out, or the same --purpose`,
          );
          return 'usage';
        }
        done = reader.doneUrls();
        unfollowed = reader.pendingRedirects();
        resumeOf = last?.runId ?? null;
        const before = last?.options.listSha256;
        if (typeof before === 'string' && before !== o.listSha256) {
          const settled = o.list.urls.filter((u) => done.has(u.url)).length;
          o.say(`the URL list differs from the one run ${last!.runId} crawled: ${settled} of its ${o.list.urls.length} URLs were settled in earlier runs and are skipped; the rest are crawled`);
        }
        reader.close();
      } catch (err) {
        o.say(`cannot read the audit to resume from: ${(err as Error).message}`);
        return 'audit';
      }
    }
  }
  return { done, lastSent, unfollowed, resumeOf };
}

function listHosts(urls: readonly { url: string }[]): Set<string> {
  const out = new Set<string>();
  for (const u of urls) {
    try {
      out.add(new URL(u.url).host);
    } catch {
      // The list holds only URLs that parsed; nothing to add otherwise.
    }
  }
  return out;
}
