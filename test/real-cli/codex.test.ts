// The real codex CLI (pinned in test/real-cli/package.json) through the built `team`.
import { describeRealCli } from './suite.js';

describeRealCli('codex');
