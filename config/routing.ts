// The `routing` and `models` sections of the config (stage routing, model tiers by cost mode); each default says why.
import { z } from 'zod';

// A regular expression given as a string: refused here when it does not compile.
const pattern = z.string().min(1).refine((text) => {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}, { message: 'not a valid regular expression' });

// Paths whose change brings a security-reviewer: authentication, cryptography, secrets, permissions.
export const SECURITY_PATHS = [
  '(^|/)(auth|authn|authz|authentication|authorization|oauth2?|login|sso)(/|\\.[A-Za-z0-9]+$)',
  '(^|/)(crypto|cryptography|security|secrets?|permissions?|acl|rbac|iam)(/|\\.[A-Za-z0-9]+$)',
  '(^|/)\\.env(\\.|$)',
  '\\.(pem|key|p12|pfx)$',
];
// Text whose addition brings a security-reviewer wherever it is: credentials, crypto calls, privileges.
export const SECURITY_CONTENT = [
  '\\b(password|passwd|api[_-]?key|secret[_-]?key|access[_-]?token|private[_-]?key)\\b["\']?\\s*[:=]',
  '\\b(createCipheriv|createDecipheriv|createSign|createHmac|pbkdf2|scrypt|bcrypt|jsonwebtoken)\\b',
  '\\b(setuid|setgid|sudoers)\\b',
];

export const routingSchema = z
  .strictObject({
    /** Off: one agent per stage (planner, analyst, verifier, executor), as before stage routing. */
    enabled: z.boolean().default(true),
    /** An explore agent (read-only) scans the codebase before each plan: one more agent call per iteration. */
    explore: z.boolean().default(false),
    /** A critic challenges the PRD's scope after the analyst: its objections become criteria or risks. */
    critic: z.boolean().default(false),
    /** An architect reviews the plan's system boundaries: when the planner asks (needsArchitect), always, or never. */
    architect: z.enum(['on-request', 'always', 'never']).default('on-request'),
    /** `always`: every plan goes to the analyst (team-prd); `on-request`: when the planner says needsPrd or a task lacks criteria. */
    analyst: z.enum(['on-request', 'always']).default('on-request'),
    /** The seed's rule: more than 20 changed files bring a code-reviewer into verify. */
    reviewFiles: z.number().int().nonnegative().default(20),
    /** Build, type and failing-gate defects go to the debugger (or, `executor`, to the executor like the rest). */
    fixer: z.enum(['debugger', 'executor']).default('debugger'),
    security: z
      .strictObject({
        /** Changed paths that bring a security-reviewer (regular expressions, case-insensitive). */
        paths: z.array(pattern).default(SECURITY_PATHS),
        /** Added text that brings a security-reviewer (regular expressions, case-insensitive, per line). */
        content: z.array(pattern).default(SECURITY_CONTENT),
      })
      .prefault({}),
  })
  .prefault({});

// Per agent name or CLI (adapter): its models from the cheapest to the strongest tier, e.g. ["haiku", "sonnet", "opus"].
export const modelsSchema = z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/), z.tuple([z.string().min(1), z.string().min(1), z.string().min(1)])).default({});
