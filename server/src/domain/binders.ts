/** Slots of a binder created on the fly (by a copy, a barcode scan or an import that names it). */
export const DEFAULT_BINDER_CAPACITY = 100;
