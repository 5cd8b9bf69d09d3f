"""Objects that keep caches of what they derive from their state: pickles leave them out."""


class LeavesCachesOut:
    """Mixin: the attributes named in ``_CACHES`` are derived on use, so they are not
    pickled (an object loaded from a pickle builds them again when first asked)."""

    _CACHES = ()

    def __getstate__(self):
        state = self.__dict__.copy()
        for name in self._CACHES:
            state.pop(name, None)
        return state
