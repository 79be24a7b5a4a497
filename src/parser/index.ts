export type { RobotsTxt, MatchResult, Diagnostic, Severity, RuleRef, GroupRef, ParseOptions } from './types.js';
