/** The time source of the command side; tests pass a controllable one. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
