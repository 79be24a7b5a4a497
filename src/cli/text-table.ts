// The CLI's plain-text tables: columns two spaces apart, numbers right-aligned, a missing value
// shown as '-'.

/** Rows (the first is the header) as lines. */
export function table(rows: readonly (readonly (string | number | null | undefined)[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i] ?? '-').length)));
  return rows
    .map((r) => r.map((c, i) => (typeof c === 'number' ? String(c).padStart(widths[i]!) : String(c ?? '-').padEnd(widths[i]!))).join('  ').trimEnd())
    .join('\n');
}
