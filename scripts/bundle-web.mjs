// Bundles the browser side of `robots-gate serve` (placeholder until the tools land).
