// A value made by `make` at its first use, then kept. For zod schemas above all: zod does much of its
// work as a schema is made, and a command that never reads a kind of record should not make its
// schema at its start (`team status` made every event's, 18 of its 105 ms).
export function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

// An object with the keys of `makers` whose each value is made by its maker at its first read, then kept.
export function builtOnUse<T extends Record<string, () => unknown>>(makers: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const built = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(makers) as Array<keyof T>) {
    Object.defineProperty(built, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = makers[key]!() as ReturnType<T[typeof key]>;
        Object.defineProperty(built, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return built;
}
