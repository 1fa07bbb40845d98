// What the ACP bridge is told (one JSON argument after --spec): the agent to start, the attempt's
// prompt and result files (its working folder is the one it runs in), the stage and its permission level, the team tools' server.
import { z } from 'zod';
import { once } from '../../src/sys/once.js';
import { PERMISSION_LEVELS, STAGES } from '../types.js';

const specSchema = once(() => z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()),
  promptFile: z.string().min(1),
  resultFile: z.string().min(1),
  stage: z.enum(STAGES),
  permission: z.enum(PERMISSION_LEVELS),
  teamServer: z.strictObject({ command: z.string().min(1), args: z.array(z.string()) }).optional(),
  /** Offer the client's file methods (fs/read_text_file, fs/write_text_file); else the agent uses its own. */
  files: z.boolean(),
  /** Folders besides the working one the session may use (the result file's): session/new's additionalDirectories. */
  directories: z.array(z.string().min(1)),
  /** The sign-in method to authenticate with, when the agent needs one. */
  authMethod: z.string().min(1).optional(),
  version: z.string(),
}));

export type BridgeSpec = z.infer<ReturnType<typeof specSchema>>;

export function bridgeArgs(spec: BridgeSpec): string[] {
  return ['--spec', JSON.stringify(spec)];
}

export function parseBridgeSpec(argv: string[]): BridgeSpec {
  const at = argv.indexOf('--spec');
  const parsed = specSchema().safeParse(at >= 0 ? JSON.parse(argv[at + 1] ?? 'null') : null);
  if (!parsed.success) {
    process.stderr.write(`teamline acp bridge: a bad --spec: ${parsed.error.message}\n`);
    process.exit(2);
  }
  return parsed.data;
}
