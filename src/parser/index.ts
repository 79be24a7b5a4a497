// `robots-gate/parser`: RFC 9309 parsing and matching. No Node built-ins: runs in browsers, Deno, workers.
export type {
  RobotsTxt,
  AgentPolicy,
  MatchResult,
  Diagnostic,
  DiagnosticCode,
  Severity,
  RuleRef,
  GroupRef,
  GroupInfo,
  UserAgentLine,
  ParseOptions,
  LintOptions,
  UsageLine,
  UsageMatch,
} from './types.js';
export { parseRobotsTxt } from './robots-txt.js';
export { productToken, readProductToken, productsOf, namesProduct, isValidProductToken, isBrowserProduct, type ProductTokenReading } from './product-token.js';
export { matchablePath } from './target.js';
export { DEFAULT_MAX_BYTES, decodeRobotsText } from './decode.js';
export { lintRobotsTxt } from './lint.js';
