#!/usr/bin/env node
import { createRequire as __createRequire } from "node:module";
import { fileURLToPath as __fileURLToPath } from "node:url";
import { dirname as __dirnameOf } from "node:path";
const require = __createRequire(import.meta.url);
const __filename = __fileURLToPath(import.meta.url);
const __dirname = __dirnameOf(__filename);
import{A,B,C,D,E,F,G,H,I,a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z}from"./chunk-VX5UZ2OG.mjs";import"./chunk-P5LLUUSB.mjs";export{G as DEFAULT_BLOCK_CAP,l as DEFAULT_MARKER,k as DEFAULT_TIMEOUT_MS,u as IllegalTransition,m as OUTPUT_TAIL_CHARS,i as OUTPUT_WINDOW_BYTES,B as activeLoopForSession,E as agentSession,H as blockCap,y as changedFiles,I as continueAtStop,p as criteriaPassed,q as currentIteration,v as decide,f as detectCommand,g as detectPackageManager,F as driveExternally,o as evaluateCriteria,s as evolve,A as execute,h as fingerprintFailure,t as fold,e as isDetectableKind,r as iterationOpen,D as iterationPrompt,C as latestLoop,z as loadLoop,d as loopConfig,c as parseCriterion,x as restoreSnapshot,j as runCommand,n as runCriterion,a as splitCommand,b as stopCondition,w as takeSnapshot};
