// Usage beside access: read what a site says about AI training, AI input and search, and decide per
// purpose. Never part of an access decision (RFC 9309 alone makes those).
export type { Purpose, SignalKind, UsageSignal, UsageValue, UsageVerdict } from './types.js';
export { PURPOSES } from './types.js';
export { readPreferences, type ReadPreferences } from './vocabulary.js';
export { signalsFromRobots, signalsFromHeaders, signalsFromHtml, signalFromTdmRep, tdmRepUnreachable, type DocumentContext } from './signals.js';
export { parseTdmRep, tdmRepRuleFor, type TdmRepFile, type TdmRepRule } from './tdmrep.js';
export { usageVerdict, isReserved } from './verdict.js';
export { usageDiagnostics, type UsageDiagnostic } from './lint.js';
