// The policy stamp every attempt row carries: which robots.txt (its sha256, URL, fetch time and
// status) decided the request, and by which rule. One place for it, so that every door's rows
// say it the same way.
import type { Decision } from '../gate/types.js';
import type { AttemptRow } from './types.js';

export type DecisionStamp = Pick<AttemptRow, 'policySha256' | 'robotsUrl' | 'policyFetchedAt' | 'policyStatus' | 'ruleLine' | 'rulePattern'>;

/** The stamp of `d`; every field null when there was no decision (the URL could not be checked). */
export function decisionStamp(d: Decision | null | undefined): DecisionStamp {
  return {
    policySha256: d ? d.policy.sha256 : null,
    robotsUrl: d ? d.policy.robotsUrl : null,
    policyFetchedAt: d ? d.policy.fetchedAt : null,
    policyStatus: d ? d.policy.status : null,
    ruleLine: d?.rule?.line ?? null,
    rulePattern: d?.rule?.pattern ?? null,
  };
}
