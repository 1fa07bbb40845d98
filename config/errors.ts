// A config that cannot be used: the message names the file and the field. The command layer
// turns it into a usage error (exit 2); config/ knows nothing of exit codes.
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
