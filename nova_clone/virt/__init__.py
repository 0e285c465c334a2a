"""Hypervisor drivers behind one interface (driver.ComputeDriver)."""
