/** The list of scenario modules; both deployment modes run all of them. */
import { foundationScenarios } from './foundation.scenarios.js';
import { type TargetFactory, withTarget } from './scenarios.js';

export function registerAllScenarios(mode: string, factory: TargetFactory | null, skipReason: string | undefined) {
  withTarget(`${mode}: foundation`, factory, skipReason, foundationScenarios);
}
