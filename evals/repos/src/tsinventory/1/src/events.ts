import type { Sku } from "./models";

export type InventoryEvent =
  | { kind: "received"; sku: Sku; warehouseId: string; quantity: number }
  | { kind: "shipped"; sku: Sku; warehouseId: string; quantity: number; orderId: string }
  | { kind: "transferred"; sku: Sku; from: string; to: string; quantity: number }
  | { kind: "counted"; sku: Sku; warehouseId: string; counted: number; expected: number };

export function describeEvent(event: InventoryEvent): string {
  switch (event.kind) {
    case "received":
      return `received ${event.quantity} x ${event.sku} at ${event.warehouseId}`;
    case "shipped":
      return `shipped ${event.quantity} x ${event.sku} for order ${event.orderId}`;
    case "transferred":
      return `moved ${event.quantity} x ${event.sku} from ${event.from} to ${event.to}`;
    case "counted": {
      const diff = event.counted - event.expected;
      const sign = diff > 0 ? "+" : "";
      return `counted ${event.sku} at ${event.warehouseId}: ${sign}${diff}`;
    }
  }
}

export function quantityDelta(event: InventoryEvent, warehouseId: string): number {
  switch (event.kind) {
    case "received":
      return event.warehouseId === warehouseId ? event.quantity : 0;
    case "shipped":
      return event.warehouseId === warehouseId ? -event.quantity : 0;
    case "transferred":
      if (event.from === warehouseId) return -event.quantity;
      if (event.to === warehouseId) return event.quantity;
      return 0;
    case "counted":
      return event.warehouseId === warehouseId ? event.counted - event.expected : 0;
  }
}
