// Commander's collector for repeatable options (`--resolve`, `--override`, `--product-token`).
// It appends in place: copying the list per value (`[...acc, v]`) made 20,000 `--resolve` entries
// cost 1.65 s of start-up, quadratic in the count. The default list must be a fresh `[]` per
// command (each command is built by a function call), as this one is appended to.

/** Append `value` to `list` and return it. */
export function collect(value: string, list: string[]): string[] {
  list.push(value);
  return list;
}
