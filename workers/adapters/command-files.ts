// What the CLIs' command files `team init` writes share: a YAML scalar for their front matter.

// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
export const yaml = (value: string): string => JSON.stringify(value);
