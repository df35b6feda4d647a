// The fault suites' layout and load, for benches that drive the distributed processes the same
// way. A front door of its own: it pulls in command-api's and the projector's test support, which
// the browser suite (through ../index.ts) must not.
export { Cluster } from './cluster';
export { Load } from './load';
