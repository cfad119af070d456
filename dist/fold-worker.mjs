#!/usr/bin/env node
import { createRequire as __createRequire } from "node:module";
import { fileURLToPath as __fileURLToPath } from "node:url";
import { dirname as __dirnameOf } from "node:path";
const require = __createRequire(import.meta.url);
const __filename = __fileURLToPath(import.meta.url);
const __dirname = __dirnameOf(__filename);
import{Fd as p,Ve as h,We as r,_e as y,he as g,ie as u}from"./chunks/chunk-HVQYF5QW.mjs";import"./chunks/chunk-2FHXSUGC.mjs";import{workerData as M}from"node:worker_threads";var S=3e4,{path:b,projections:j,after:q,until:v,port:c,signal:d}=M,F=()=>{g(import.meta.url);let e=u(b,{readonly:!0,fileMustExist:!0});try{let k=j.map(s=>h.find(f=>f.name===s)),a=new Map,i=[],t=[],l=0,m=()=>{r(c,d,{kind:"changes",events:l,statements:i,changes:t}),i=[],t=[],l=0};for(let s of y(e,{after:q,until:v})){l+=s.read;for(let f of s.events){for(let E of k)for(let o of E.apply(f)){let n=a.get(o.sql);n===void 0&&(n=a.size,a.set(o.sql,n),i.push(o.sql)),t.push(n,o.params.length,...o.params)}t.length>=S&&m()}}m(),r(c,d,{kind:"done"})}finally{e.close()}};try{F()}catch(e){r(c,d,{kind:"failed",position:e instanceof p?e.position:null,reason:e instanceof p?e.reason:e instanceof Error?e.message:String(e)})}
