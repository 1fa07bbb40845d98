// Keeps `.team/` out of git before teamline writes its first file there: the pattern goes into the
// repository's shared exclude file (.git/info/exclude, read by every worktree), found from the
// folder without starting git, as a command's start-up must stay cheap.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

// The pattern that keeps teamline's own files out of every worktree's commits.
export const TEAM_EXCLUDE = '.team/';

// What became of the exclusion: written now, there already (or in the project's .gitignore), no
// repository to write it in, or a file that cannot be written (a read-only .git).
export type TeamExclude =
  | { kind: 'added'; file: string }
  | { kind: 'present'; file: string }
  | { kind: 'no-repo' }
  | { kind: 'failed'; file: string; reason: string };

// Adds `.team/` to the exclude file of the repository `dir` is in, unless it is there.
export function excludeTeamFolder(dir: string): TeamExclude {
  const common = findCommonGitDir(resolve(dir));
  if (common === undefined) return { kind: 'no-repo' };
  const file = join(common, 'info', 'exclude');
  let text: string;
  try {
    text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  } catch (error) {
    return { kind: 'failed', file, reason: (error as Error).message };
  }
  if (hasTeamLine(text)) return { kind: 'present', file };
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}# teamline's run folder and worktrees\n${TEAM_EXCLUDE}\n`);
    return { kind: 'added', file };
  } catch (error) {
    const ignore = join(dirname(common), '.gitignore');
    if (existsSync(ignore) && hasTeamLine(readFileSync(ignore, 'utf8'))) return { kind: 'present', file: ignore };
    return { kind: 'failed', file, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}

// Excludes `.team/` for a command about to write under it, saying so on stderr once: the line
// when it is added, a warning (and the fix) when the exclude file cannot be written.
export function keepTeamOutOfGit(dir: string): TeamExclude {
  const outcome = excludeTeamFolder(dir);
  if (outcome.kind === 'added') process.stderr.write(`team: added ${TEAM_EXCLUDE} to ${outcome.file}, so that git leaves teamline's run files alone\n`);
  if (outcome.kind === 'failed') {
    process.stderr.write(`team: cannot add ${TEAM_EXCLUDE} to ${outcome.file} (${outcome.reason}); add a line ${TEAM_EXCLUDE} to .gitignore, or git add -A will take teamline's run files\n`);
  }
  return outcome;
}

// Why git cannot write the repository `dir` is in (a read-only .git, as in Codex's sandbox), or
// undefined when it can: a folder made and removed in it is the only test every sandbox answers.
export function gitWriteProblem(dir: string): string | undefined {
  const common = findCommonGitDir(resolve(dir));
  if (common === undefined) return undefined;
  try {
    rmdirSync(mkdtempSync(join(common, 'teamline-probe-')));
    return undefined;
  } catch (error) {
    return `${common} cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
}

function hasTeamLine(text: string): boolean {
  return text.split('\n').some((line) => ['.team/', '.team', '/.team/', '/.team'].includes(line.trim()));
}

// The repository's common git folder (a worktree's is its main repository's), or undefined outside git.
function findCommonGitDir(dir: string): string | undefined {
  if (process.env.GIT_COMMON_DIR !== undefined) return resolve(process.env.GIT_COMMON_DIR);
  if (process.env.GIT_DIR !== undefined) return commonOf(resolve(process.env.GIT_DIR));
  for (let at = dir; ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    if (existsSync(dotGit)) return statSync(dotGit).isDirectory() ? dotGit : gitDirOfLink(dotGit);
    if (dirname(at) === at) return undefined;
  }
}

// A `.git` file (a worktree or a submodule) names its git folder.
function gitDirOfLink(file: string): string | undefined {
  const match = /^gitdir: (.+)$/m.exec(readFileSync(file, 'utf8'));
  return match ? commonOf(resolve(dirname(file), match[1]!.trim())) : undefined;
}

// A worktree's git folder names the common one in `commondir`; any other git folder is its own.
function commonOf(gitDir: string): string {
  const commonFile = join(gitDir, 'commondir');
  if (!existsSync(commonFile)) return gitDir;
  const common = readFileSync(commonFile, 'utf8').trim();
  return isAbsolute(common) ? common : resolve(gitDir, common);
}
