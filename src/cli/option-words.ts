// The gate's option errors in the CLI's words: its messages name the library's options
// ("RobotsGate needs options.userAgent", "invalid userAgent"), which a CLI user never wrote.
import { InvalidUserAgentError } from '../gate/errors.js';

/** `err`'s message, with the gate's option names replaced by the CLI's flags. */
export function cliMessage(err: unknown): string {
  if (err instanceof InvalidUserAgentError) {
    if (err.problem === 'empty') return '--user-agent is empty: give the User-Agent header your crawler sends, e.g. "MyBot/1.0 (+https://example.com/bot)"';
    return err.message
      .replace(/\bpass productToken\b/g, 'pass --product-token')
      .replace(/, e\.g\. productToken: "MyBot"/g, ', e.g. --product-token MyBot')
      .replace(/\bproductToken\b/g, '--product-token')
      .replace(/\buserAgent\b/g, '--user-agent');
  }
  return err instanceof Error ? err.message : String(err);
}
