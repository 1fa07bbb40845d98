// "did you mean …": the nearest of the known names to a mistyped one, by edit distance.

// The known name nearest to `word` when it is close enough to be a typo (at most a third of its
// letters off, and at least one), else undefined.
export function nearestName(word: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return best !== undefined && bestDistance > 0 && bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

// " (did you mean "maxFixLoops"?)", or '' when nothing is near.
export function didYouMean(word: string, known: Iterable<string>): string {
  const near = nearestName(word, known);
  return near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`;
}

// Edit distance with a swap of two neighbouring letters as one edit ("smi" → "sim").
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
