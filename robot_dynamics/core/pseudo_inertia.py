"""Physical consistency of a body's inertial parameters: the pseudo-inertia
``J = [[Sigma, h], [h^T, m]]``, ``Sigma = tr(I)/2 1 - I`` (positive semi-definite exactly when
the mass is >= 0 and the rotational inertia positive semi-definite with the triangle inequality,
Wensing et al. 2017) and its log-Cholesky parameterisation ``J = U U^T`` (Rucker and Wensing
2022), over which the identification's consistent fit runs."""

import numpy as np

from .regressor import parameters_to_inertia


def pseudo_inertia(theta):
    """Pseudo-inertia ``[[Sigma, h], [h^T, m]]``, ``Sigma = tr(I)/2 1 - I``, of body parameters
    (inertia about the body origin).

    Args:
        theta: (..., 10) body parameters (:mod:`robot_dynamics.core.regressor` order).

    Returns:
        ndarray: (..., 4, 4) pseudo-inertia [kg, kg m, kg m^2].
    """
    theta = np.asarray(theta, dtype=float)
    inertia = parameters_to_inertia(theta)[..., 3:, 3:]
    trace = np.trace(inertia, axis1=-2, axis2=-1)[..., None, None]
    J = np.zeros(theta.shape[:-1] + (4, 4))
    J[..., :3, :3] = 0.5 * trace * np.eye(3) - inertia
    J[..., :3, 3] = theta[..., 1:4]
    J[..., 3, :3] = theta[..., 1:4]
    J[..., 3, 3] = theta[..., 0]
    return J


def parameters_from_pseudo_inertia(J):
    """Inverse of :func:`pseudo_inertia`.

    Args:
        J: (..., 4, 4) pseudo-inertia.

    Returns:
        ndarray: (..., 10) body parameters.
    """
    J = np.asarray(J, dtype=float)
    S = J[..., :3, :3]
    inertia = np.trace(S, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - S
    out = np.empty(J.shape[:-2] + (10,))
    out[..., 0] = J[..., 3, 3]
    out[..., 1:4] = J[..., :3, 3]
    out[..., 4:] = inertia[..., [0, 0, 1, 0, 1, 2], [0, 1, 1, 2, 2, 2]]
    return out


def is_physically_consistent(theta, tolerance=1e-9):
    """Mass >= 0 and rotational inertia PSD with the triangle inequality, per body
    (pseudo-inertia eigenvalues >= -tolerance * its scale).

    Args:
        theta: (..., 10) body parameters.
        tolerance: relative tolerance on the pseudo-inertia's eigenvalues.

    Returns:
        ndarray: (...,) bool.
    """
    J = pseudo_inertia(theta)
    eig = np.linalg.eigvalsh(J)
    scale = np.maximum(np.abs(eig).max(axis=-1), 1e-12)
    return eig.min(axis=-1) >= -tolerance * scale


def log_cholesky_to_parameters(x):
    """Body parameters of log-Cholesky coordinates
    ``[alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3]``:
    ``U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3, t3], [0, 0, 0, 1]]``,
    ``J = U U^T`` (always a physically consistent body with positive mass).

    Args:
        x: (..., 10) log-Cholesky coordinates.

    Returns:
        ndarray: (..., 10) body parameters.
    """
    U = _log_cholesky_factor(np.asarray(x, dtype=float))
    return parameters_from_pseudo_inertia(U @ U.swapaxes(-1, -2))


def parameters_to_log_cholesky(theta, floor=1e-9):
    """Log-Cholesky coordinates of body parameters; a pseudo-inertia that is not positive definite
    is first lifted by ``floor`` times its scale (plus its most negative eigenvalue).

    Args:
        theta: (..., 10) body parameters.
        floor: relative lift of a pseudo-inertia that is not positive definite.

    Returns:
        ndarray: (..., 10) log-Cholesky coordinates.
    """
    J = pseudo_inertia(theta)
    eig = np.linalg.eigvalsh(J)
    scale = np.maximum(np.abs(eig).max(axis=-1), 1e-12)
    lift = np.maximum(floor * scale - eig.min(axis=-1), 0.0)
    J = J + lift[..., None, None] * np.eye(4)
    flip = np.eye(4)[::-1]
    L = np.linalg.cholesky(flip @ J @ flip)  # J = (P L P)(P L P)^T, P L P upper triangular
    U = flip @ L @ flip
    a = U[..., 3, 3]
    U = U / a[..., None, None]
    x = np.empty(theta.shape[:-1] + (10,))
    x[..., 0] = np.log(a)
    x[..., 1] = np.log(U[..., 0, 0])
    x[..., 2] = np.log(U[..., 1, 1])
    x[..., 3] = np.log(U[..., 2, 2])
    x[..., 4] = U[..., 0, 1]
    x[..., 5] = U[..., 1, 2]
    x[..., 6] = U[..., 0, 2]
    x[..., 7:10] = U[..., :3, 3]
    return x


def _log_cholesky_factor(x):
    """(..., 4, 4) upper-triangular U of log-Cholesky coordinates (..., 10)."""
    U = np.zeros(x.shape[:-1] + (4, 4))
    U[..., 0, 0] = np.exp(x[..., 1])
    U[..., 1, 1] = np.exp(x[..., 2])
    U[..., 2, 2] = np.exp(x[..., 3])
    U[..., 0, 1] = x[..., 4]
    U[..., 1, 2] = x[..., 5]
    U[..., 0, 2] = x[..., 6]
    U[..., :3, 3] = x[..., 7:10]
    U[..., 3, 3] = 1.0
    return U * np.exp(x[..., 0])[..., None, None]


# entries of U moved by the coordinates s12, s23, s13, t1, t2, t3 (x[4:10])
_OFF_DIAGONAL = ((0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3))


def log_cholesky_jacobian(x):
    """Derivative of :func:`log_cholesky_to_parameters`.

    Args:
        x: (..., 10) log-Cholesky coordinates.

    Returns:
        ndarray: (..., 10, 10) d theta / d x.
    """
    U = _log_cholesky_factor(x)
    dU = np.zeros(x.shape[:-1] + (10, 4, 4))
    dU[..., 0, :, :] = U  # alpha scales everything
    for k in range(3):  # d_k scales the diagonal entry
        dU[..., 1 + k, k, k] = U[..., k, k]
    ea = np.exp(x[..., 0])
    for k, (i, j) in enumerate(_OFF_DIAGONAL):
        dU[..., 4 + k, i, j] = ea
    Ut = U[..., None, :, :].swapaxes(-1, -2)
    dJ = dU @ Ut
    dJ = dJ + dJ.swapaxes(-1, -2)
    return parameters_from_pseudo_inertia(dJ).swapaxes(-1, -2)  # (..., theta, x)


__all__ = [
    "is_physically_consistent",
    "log_cholesky_jacobian",
    "log_cholesky_to_parameters",
    "parameters_from_pseudo_inertia",
    "parameters_to_log_cholesky",
    "pseudo_inertia",
]
