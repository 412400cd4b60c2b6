// `npm run verify -- BUNDLE [--keys FILE] [--last-checkpoint FILE]`: the offline verifier (receipts/verify-cli.ts).
import { runVerify } from './receipts/verify-cli.js';

const { code, out, err } = runVerify(process.argv.slice(2));
for (const line of err.filter((l) => l.startsWith('warning:'))) console.error(line);
for (const line of out) console.log(line);
for (const line of err.filter((l) => !l.startsWith('warning:'))) console.error(line);
process.exit(code);
