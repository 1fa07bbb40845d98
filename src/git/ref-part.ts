// A task id as a part of a branch name. Ids may hold what git refuses in a ref (`a..b`, `x.lock`,
// `x.`); such an id has each `.` written `+`, an id git accepts stays as it is. No id holds `+`,
// so the mapping never makes two ids one name, it reads back, and the name is no longer than the id.
const DOT = '+';

// True when git would refuse the id at the end of a branch name (git check-ref-format's rules
// for the characters an id may hold; `.lock` in any case, for case-insensitive file systems).
export function refusedInRef(id: string): boolean {
  return id.includes('..') || id.endsWith('.') || id.toLowerCase().endsWith('.lock');
}

// The id as git can hold it in a branch name.
export function refPart(id: string): string {
  return refusedInRef(id) ? id.replaceAll('.', DOT) : id;
}

// The id a branch-name part stands for.
export function idOfRefPart(part: string): string {
  return part.replaceAll(DOT, '.');
}
