#!/usr/bin/env node
import { createRequire as __createRequire } from "node:module";
import { fileURLToPath as __fileURLToPath } from "node:url";
import { dirname as __dirnameOf } from "node:path";
const require = __createRequire(import.meta.url);
const __filename = __fileURLToPath(import.meta.url);
const __dirname = __dirnameOf(__filename);
import*as o from"node:module";var[e=0,s=0]=process.versions.node.split(".").map(Number);(e<22||e===22&&s<19)&&(process.stderr.write(`ralph-mem needs Node.js 22.19 or newer; this is ${process.versions.node}.
`),process.exit(1));o.enableCompileCache?.();await import("./chunks/main-XYRSE4SI.mjs");
