"""Usage enforcement filters shipped with blazar_ext."""


def all_filters() -> list:
    """Every filter class in this package ([enforcement] available_filters)."""
    from blazar_ext.enforcement.filters import budget
    from blazar_ext.enforcement.filters import external_service
    from blazar_ext.enforcement.filters import fair_use
    from blazar_ext.enforcement.filters import max_length
    return [max_length.MaximumReservationLengthFilter,
            external_service.ExternalServiceFilter,
            budget.BudgetFilter,
            fair_use.MaxConcurrentUsageFilter,
            fair_use.MaxFutureLeasesFilter,
            fair_use.MaxAdvanceBookingFilter,
            fair_use.AntiStackingFilter]
