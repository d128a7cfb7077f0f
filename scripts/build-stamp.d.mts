// Types of build-stamp.mjs, which stays JavaScript: `npm run build` and bin/evidence-hub.js run it before anything
// is compiled.
export declare const STAMP: string
export declare const INPUTS: string[]
export declare function isBuilt (root?: string): boolean
