// Test support: the read side served in-process over a recorded day.
export * from './read-side';
// Socket.IO clients on raw TCP that stop reading (limits and stops with stalled clients).
export * from './silent-clients';
